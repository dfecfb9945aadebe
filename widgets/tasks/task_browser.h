// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTextBrowser;
class QTreeView;

namespace dice {

class CodeEditor;
class SuiteEvaluationDialog;
class TaskModel;
class WorkbenchState;

// Lists the tasks of the suite and shows the selected one: its description, inputs, the reference
// (TorchScript) and the PyTorch module used in prompts. Selecting a task makes it current.
class TaskBrowser : public QWidget {
    Q_OBJECT
public:
    explicit TaskBrowser(WorkbenchState* state, QWidget* parent = nullptr);

    QTreeView* view() const { return m_view; }
    TaskModel* model() const { return m_model; }
    // Text of the details pane and the reference code shown (tests read them).
    QString detailsText() const;
    QString referenceText() const;
    // Selects a task by name; returns false when there is none.
    bool selectTask(const QString& name);
    // The dialog that scores the whole suite with a folder of candidates, made when first asked
    // for and shown by the browser's button.
    SuiteEvaluationDialog* suiteEvaluationDialog();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void layoutRows();
    void showCurrentTask();
    void onSelectionChanged();
    // The task's row in the source model, invalid when there is none.
    QModelIndex sourceIndexOf(const QString& name) const;

    WorkbenchState* m_state;
    TaskModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QLineEdit* m_filter;
    // While the filter is applied, the view's current row moves by itself: not the user's choice.
    bool m_filtering = false;
    QTreeView* m_view;
    QPushButton* m_evaluateSuite;
    SuiteEvaluationDialog* m_suiteDialog = nullptr;
    QLabel* m_heading;
    QTabWidget* m_tabs;
    QTextBrowser* m_details;
    CodeEditor* m_reference;
    CodeEditor* m_module;
};

} // namespace dice
