// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QPushButton;

namespace dice {

class CodeEditor;
class WorkbenchState;

// Infill: a skeleton in the editor whose holes the model fills, using the rest of the file as
// context.
class InfillArea : public QWidget {
    Q_OBJECT
public:
    explicit InfillArea(WorkbenchState* state, QWidget* parent = nullptr);

    CodeEditor* editor() const { return m_editor; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void loadTaskSkeleton();

    WorkbenchState* m_state;
    CodeEditor* m_editor;
    QPushButton* m_fill;
    QLabel* m_status;
};

} // namespace dice
